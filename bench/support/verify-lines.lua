-- wrk script: POSTs each line of the file named by LINES_FILE (one JSON body per line) once, in order,
-- so that every request carries a fresh HOLA line (or login challenge) to POST_PATH (default
-- /api/identity/verify). Used by bench/verify.bench.ts and scripts/profile-app.ts.
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
