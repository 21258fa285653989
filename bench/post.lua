-- wrk: POST the file named by BODY on every request (as JSON, or as CONTENT_TYPE when
-- set), and print the number of requests completed (REQUESTS n) for the scripts that
-- divide by it.
local file = assert(io.open(assert(os.getenv("BODY"), "BODY names the body file"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = os.getenv("CONTENT_TYPE") or "application/json"
function done(summary) io.write(string.format("REQUESTS %d\n", summary.requests)) end
