-- wrk script used by benches/load.py (one file for every endpoint).
--
-- Request set-up comes from the environment:
--   LOAD_METHOD        HTTP method (default GET)
--   LOAD_BODY_FILE     file whose bytes are sent as the body (optional)
--   LOAD_CONTENT_TYPE  Content-Type sent with a body (default application/json)
--   LOAD_VARY_GPUS     if set, every request gets a different "gpus" value (512..2559, a
--                      different sequence per thread) in its body, or in its URL's `gpus=`
--                      without a body, so no request repeats within 2,048: the service's plan
--                      memo (256 entries) never answers it
--
-- It counts every response whose status is not 2xx (wrk's own "Non-2xx or 3xx" counter only
-- counts status > 399) and ends with one JSON line (requests, duration_us, errors by kind,
-- p50_us … max_us). Latencies are wrk's, in microseconds.

local method = os.getenv("LOAD_METHOD")
if method ~= nil and method ~= "" then
  wrk.method = method
end

local body_file = os.getenv("LOAD_BODY_FILE")
if body_file ~= nil and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  wrk.body = f:read("*a")
  f:close()
  local ct = os.getenv("LOAD_CONTENT_TYPE")
  if ct == nil or ct == "" then
    ct = "application/json"
  end
  wrk.headers["Content-Type"] = ct
end

-- setup() and done() run in the main Lua state; response() runs in each thread's own state,
-- so the per-thread counters are collected through thread:get() at the end.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local vary = os.getenv("LOAD_VARY_GPUS")
if vary ~= nil and vary ~= "" then
  -- The 2,048 requests are formatted once per thread before the run, not one per request: the
  -- load generator shares the service's two cores, so it does no more per request than it does
  -- for the repeated endpoints (receiving the answer is still most of its CPU).
  local requests = {}
  init = function(args)
    -- 7 is invertible mod 2048: each thread walks all 2,048 values before repeating, and the
    -- threads' sequences are offset by hundreds of steps.
    for n = 1, 2048 do
      local g = 512 + ((n * 7 + (tid or 0) * 1021) % 2048)
      if wrk.body ~= nil then
        local body = wrk.body:gsub('"gpus"%s*:%s*%d+', '"gpus":' .. g, 1)
        requests[n] = wrk.format(nil, nil, nil, body)
      else
        local path = wrk.path:gsub("gpus=%d+", "gpus=" .. g, 1)
        requests[n] = wrk.format(nil, path)
      end
    end
  end
  local n = 0
  request = function()
    n = n % 2048 + 1
    return requests[n]
  end
end

non2xx = 0

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do
    bad = bad + (t:get("non2xx") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,"non2xx":%d,"connect":%d,"read":%d,'
      .. '"write":%d,"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,'
      .. '"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, bad, e.connect, e.read, e.write,
    e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, latency.mean))
end
