-- A wrk script that makes wrk's own thread the limit: every request costs the generator about
-- half a millisecond of Lua work (the verdict tests' client-bound case).
request = function()
  local t = {}
  for i = 1, 20000 do t[i] = tostring(i) end
  return wrk.format(nil, nil, nil, nil)
end
