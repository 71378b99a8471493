-- wrk script for claim storms: every request carries its own participant's bearer token and a fresh
-- commandId. Environment:
--   STORM_TOKENS   file with one "principalId token" pair per line
--   STORM_PATHS    file with one request path per line (round-robin: one market or many)
--   STORM_METHOD   POST (claims, default) or GET (reads)
--   STORM_RATE     optional requests/s for the whole run (paced; otherwise as fast as possible)
--   STORM_CONNECTIONS  connection count (for pacing)
--   STORM_RUN      a tag unique to this run: command ids must never repeat across runs (the service
--                  would rightly answer idempotency_conflict for the same actor + commandId)
-- Prints a JSON summary line "STORM_RESULT {...}" with counts by status and latency percentiles.

local tokens = {}
local principals = {}
local paths = {}
local threads = {}
local counter = 0
local thread_id = 0
statuses = {} -- global: done() reads it from each thread with thread:get
local pace_ms = 0
local run = "run"
local method = "POST"

local function read_lines(name)
  local lines = {}
  local f = assert(io.open(name, "r"), "cannot open " .. name)
  for line in f:lines() do
    if line ~= "" then table.insert(lines, line) end
  end
  f:close()
  return lines
end

function setup(thread)
  thread_id = thread_id + 1
  thread:set("id", thread_id)
  table.insert(threads, thread)
end

function init(args)
  for _, line in ipairs(read_lines(os.getenv("STORM_TOKENS"))) do
    local principal, token = line:match("^(%S+) (%S+)$")
    table.insert(principals, principal)
    table.insert(tokens, token)
  end
  paths = read_lines(os.getenv("STORM_PATHS"))
  run = os.getenv("STORM_RUN") or "run"
  method = os.getenv("STORM_METHOD") or "POST"
  -- Spread threads over disjoint slices of the participants.
  counter = (id - 1) * 1000003
  local rate = tonumber(os.getenv("STORM_RATE") or "")
  local connections = tonumber(os.getenv("STORM_CONNECTIONS") or "1")
  if rate ~= nil and rate > 0 then pace_ms = connections * 1000 / rate end
  math.randomseed(id * 7919 + os.time())
end

-- Paced runs: a uniformly random pause with mean pace_ms, so the connections drift apart instead of
-- sending in lock-step bursts of one request each (a fixed pause measures the bursts, not the
-- service). The pause follows each response, so the rate achieved is a little below the offered
-- one; the report prints both.
function delay()
  if pace_ms == 0 then return 0 end
  return math.random() * 2 * pace_ms
end

function request()
  counter = counter + 1
  local i = (counter % #tokens) + 1
  -- Shift the market by one on every pass over the participants, so with many markets the
  -- (participant, market) pairs do not simply repeat.
  local path = paths[((counter + math.floor(counter / #tokens)) % #paths) + 1]
  if method == "GET" then
    return wrk.format("GET", path, { ["authorization"] = "Bearer " .. tokens[i] })
  end
  local body = '{"commandId":"' .. run .. '-' .. id .. '-' .. counter .. '","principalId":"' .. principals[i] .. '"}'
  return wrk.format("POST", path, { ["authorization"] = "Bearer " .. tokens[i], ["content-type"] = "application/json" }, body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local by_status = {}
  for _, thread in ipairs(threads) do
    local counts = thread:get("statuses")
    for status, count in pairs(counts) do
      by_status[status] = (by_status[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(by_status) do table.insert(parts, '"' .. status .. '":' .. count) end
  io.write(string.format(
    'STORM_RESULT {"requests":%d,"durationUs":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"timeouts":%d,"non2xx":%d,' ..
    '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.1f},"statuses":{%s}}\n',
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout, summary.errors.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean,
    table.concat(parts, ",")))
end
