-- wrk script: POSTs each line of the file named by LINES_FILE (one JSON body per line) once, in order,
-- so that every request carries a fresh HOLA line. Used by bench/verify.bench.ts.
local bodies = {}
local index = 0
function init(args)
  for line in io.lines(os.getenv("LINES_FILE")) do bodies[#bodies + 1] = line end
end
function request()
  index = index + 1
  if index > #bodies then index = 1 end
  return wrk.format("POST", "/api/identity/verify", { ["Content-Type"] = "application/json" }, bodies[index])
end
