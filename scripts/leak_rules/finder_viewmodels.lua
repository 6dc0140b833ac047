-- Leak finder "viewmodels" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "viewmodels",
  help = "cleared ViewModels (androidx ViewModel.mCleared)",
  find = function(dump, report)
    leaks.instances(dump, "androidx.lifecycle.ViewModel", function(vm)
      if leaks.viewmodel_cleared(vm) == true then report(vm, { reason = "ViewModel#mCleared is true" }) end
    end)
  end,
}
