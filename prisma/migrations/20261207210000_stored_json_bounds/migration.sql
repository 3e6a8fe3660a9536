-- Posted check results' matches are bounded when they arrive (at most 16 KiB a match and 64 KiB
-- in all, src/domains/checks/checks.matches.ts). Rows stored before that may hold megabytes that
-- every read of them would parse whole: each such list, or review hit, becomes the marker reads
-- show for an oversize match, wherever it was copied (the run, the review's hit, the check event
-- and its webhook attempts). `pg_column_size` (the stored, compressed size) passes over the rows
-- too small to need it without reading them.

UPDATE "check_runs" SET "result" = jsonb_set("result", '{matches}', '[{"omitted": "oversize"}]')
WHERE pg_column_size("result") > 512 AND jsonb_typeof("result") = 'object'
  AND octet_length(("result" -> 'matches')::text) > 65536;

UPDATE "review_hits" SET "match" = jsonb_build_object('entryId', "entry_id", 'omitted', 'oversize')
WHERE pg_column_size("match") > 128 AND octet_length("match"::text) > 16384;

UPDATE "events" SET "data" = jsonb_set("data", '{check,result,matches}', '[{"omitted": "oversize"}]')
WHERE "type" LIKE 'check.%' AND pg_column_size("data") > 512
  AND octet_length(("data" -> 'check' -> 'result' -> 'matches')::text) > 65536;

UPDATE "webhook_attempts" SET "payload" = jsonb_set("payload", '{data,check,result,matches}', '[{"omitted": "oversize"}]')
WHERE "event_type" LIKE 'check.%' AND pg_column_size("payload") > 512
  AND octet_length(("payload" -> 'data' -> 'check' -> 'result' -> 'matches')::text) > 65536;
