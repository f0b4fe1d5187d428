-- Crankshaft's HTTP/1.1 pipelining script for wrk.
--
--   wrk -c 256 -t 32 -d 15s --latency -s scripts/pipeline.lua http://host:port/plaintext -- 16
--
-- The argument after "--" is the pipeline depth (default 1): each write sends that many copies of
-- the request wrk was configured with (method, path, headers and body from the command line), and
-- wrk waits for all of their responses before it writes again. wrk counts every response, so
-- Requests/sec includes each pipelined request.

local batch

function init(args)
  local depth = math.floor(tonumber(args[1]) or 1)
  if depth < 1 then
    depth = 1
  end
  batch = string.rep(wrk.format(), depth)
end

function request()
  return batch
end
