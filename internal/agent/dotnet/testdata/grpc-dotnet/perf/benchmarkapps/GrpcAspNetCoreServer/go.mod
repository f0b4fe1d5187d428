module grpcaspnetcoreserver

go 1.26
