-- wrk script: POSTs each line of the file named by LINES_FILE (one JSON body per line) once, in order,
-- so that every request carries a fresh HOLA line (or login challenge) to POST_PATH (default
-- /api/identity/verify). Used by bench/verify.bench.ts, bench/auth.bench.ts and scripts/profile-app.ts.
-- STOP_AT_END=1 stops the run once as many responses as lines have come back (the lines then wrap for
-- at most one request per connection: for logins, a reused challenge answered 401).
local bodies = {}
local index = 0
local target = os.getenv("POST_PATH") or "/api/identity/verify"
function init(args)
  for line in io.lines(os.getenv("LINES_FILE")) do bodies[#bodies + 1] = line end
end
function request()
  index = index + 1
  if index > #bodies then index = 1 end
  return wrk.format("POST", target, { ["Content-Type"] = "application/json" }, bodies[index])
end

-- Defined only when asked: with a response() function wrk hands every response to Lua.
if os.getenv("STOP_AT_END") == "1" then
  local responses = 0
  function response(status, headers, body)
    responses = responses + 1
    if responses >= #bodies then wrk.thread:stop() end
  end
end
