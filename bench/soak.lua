-- wrk script for bench/soak.sh: rotates the valid request bodies listed in
-- $SOAK_BODIES/index ("PATH FILE" per line), paces every connection with
-- $SOAK_DELAY_MS between requests (0: as fast as it can), and counts every answer
-- that is not a 200 and every 5xx.
local dir = os.getenv("SOAK_BODIES")
local delay_ms = tonumber(os.getenv("SOAK_DELAY_MS") or "0")
local requests = {}
local next_request = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(dir .. "/index") do
    local path, file = line:match("^(%S+)%s+(%S+)$")
    local handle = assert(io.open(dir .. "/" .. file, "rb"))
    local body = handle:read("*a")
    handle:close()
    table.insert(requests, wrk.format("POST", path, { ["Content-Type"] = "application/json" }, body))
  end
  not_ok = 0
  server_errors = 0
end

function request()
  next_request = next_request % #requests + 1
  return requests[next_request]
end

function response(status, headers, body)
  if status ~= 200 then not_ok = not_ok + 1 end
  if status >= 500 then server_errors = server_errors + 1 end
end

if delay_ms > 0 then
  function delay()
    return delay_ms
  end
end

function done(summary, latency, requests)
  local not_ok_total, server_errors_total = 0, 0
  for _, thread in ipairs(threads) do
    not_ok_total = not_ok_total + thread:get("not_ok")
    server_errors_total = server_errors_total + thread:get("server_errors")
  end
  local errors = summary.errors
  io.write(string.format("SOAK requests=%d not_ok=%d server_errors=%d connect=%d read=%d write=%d timeout=%d p99_ms=%.2f\n",
    summary.requests, not_ok_total, server_errors_total, errors.connect, errors.read, errors.write, errors.timeout,
    latency:percentile(99) / 1000))
end
