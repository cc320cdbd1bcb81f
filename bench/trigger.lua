-- wrk script: POST /triggerReplyFinished for one of the agents register.lua filled.
local secret = os.getenv("BENCH_SECRET") or "benchmark-secret-0123456789abcdefgh"
local counter = 0

function request()
  counter = counter + 1
  local body = string.format(
    '{"cwd":"/srv/agents/agent-%d","message_preview":"Benchmark reply %d: all tests pass."}', counter % 50, counter)
  return wrk.format("POST", "/triggerReplyFinished", {
    ["Authorization"] = "Bearer " .. secret,
    ["Content-Type"] = "application/json",
  }, body)
end
