module burn

go 1.26
