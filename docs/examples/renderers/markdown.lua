-- An example renderer (docs/lua-api.md): a Markdown table.
hk.renderer{
  name = "markdown",
  help = "a Markdown table",
  render = function(rows, out, meta)
    local cols = meta.columns
    out:write("| ", table.concat(cols, " | "), " |\n")
    out:write("|", string.rep(" --- |", #cols), "\n")
    for _, r in ipairs(rows) do
      local cells = {}
      for i, c in ipairs(cols) do
        local v = r[c]
        cells[i] = (v == nil or v == hk.null) and "" or tostring(v)
      end
      out:write("| ", table.concat(cells, " | "), " |\n")
    end
  end,
}
