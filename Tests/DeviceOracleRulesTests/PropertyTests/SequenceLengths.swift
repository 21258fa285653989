/// Random sequences are this long: long enough to reach every state, short
/// enough that thousands run in well under a second.
let sequenceLengths = 0...40
