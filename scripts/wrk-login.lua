local bodies = {}
local index = 0
function init(args)
  for line in io.lines(os.getenv("LINES_FILE")) do bodies[#bodies + 1] = line end
end
function request()
  index = index + 1
  if index > #bodies then index = 1 end
  return wrk.format("POST", "/api/login", { ["Content-Type"] = "application/json" }, bodies[index])
end
