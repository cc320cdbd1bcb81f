-- wrk script: POST /registerSubscription, every request a new installation of one
-- of 50 agents, so each call is a real upsert of three documents.
local secret = os.getenv("BENCH_SECRET") or "benchmark-secret-0123456789abcdefgh"
local counter = 0
-- A global, not a local: setup's thread:set writes each thread's globals, and a
-- local here would shadow it (every thread then used 0 and half the requests
-- registered an installation another thread had just made).
thread_id = 0

function setup(thread)
  thread:set("thread_id", thread_id)
  thread_id = thread_id + 1
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"cwd":"/srv/agents/agent-%d","installation_id":"bench-%d-%d","apns_token":"%064x","agent_display_name":"Agent %d"}',
    counter % 50, thread_id, counter, counter, counter % 50)
  return wrk.format("POST", "/registerSubscription", {
    ["Authorization"] = "Bearer " .. secret,
    ["Content-Type"] = "application/json",
  }, body)
end
