module ndjsonpeer

go 1.19
