-- Custom SQL migration file, put your code below! --
-- The per-day counts of the activities recorded before activity_days existed (from now on the insert
-- of an activity keeps its day's count up in the same transaction).
INSERT INTO "activity_days" ("installation_id", "day", "count")
SELECT "installation_id", ("created_at" AT TIME ZONE 'UTC')::date, count(*)::integer
FROM "activities"
GROUP BY 1, 2
ON CONFLICT ("installation_id", "day") DO UPDATE SET "count" = EXCLUDED."count";
