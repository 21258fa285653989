-- wrk: POST the file named by BODY as JSON on every request, and print the number of
-- requests completed (REQUESTS n) for the scripts that divide by it.
local file = assert(io.open(assert(os.getenv("BODY"), "BODY names the body file"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
function done(summary) io.write(string.format("REQUESTS %d\n", summary.requests)) end
