-- require "text.json": Lua values as JSON text, as the json renderer, the report and users'
-- scripts write them: hk.json_encode (core/lua/lua_json_encode.c says how tables are read).
-- Ids stay hex strings, absent values (hk.null) are null.
local M = {}

-- encode(value[, key_order[, compact]]): indented, or on one line when compact (compact may
-- also be given as {compact = true})
M.encode = hk.json_encode

return M
