// Intentionally empty: SwiftPM needs one source file for a C target; the header is the API.
#include "CSyscalls.h"
