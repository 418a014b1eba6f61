-- Custom SQL migration file, put your code below! --
-- Usage rows recorded before the ledger named agents say the internal id ("requirementsAgent · gpt-4o-mini: …"):
-- they now say the name people know the agent by, as new rows do (src/shared/constants/agents.ts).
UPDATE "credit_transactions" AS t
SET "description" = n."name" || substr(t."description", length(n."id") + 1)
FROM (VALUES
  ('requirementsAgent', 'Requirements Gatherer'),
  ('repositoryAnalyzerAgent', 'Repository Analyzer'),
  ('cloudArchitectAgent', 'Cloud Architecture Assistant'),
  ('implementationPlanningAgent', 'Implementation Planner'),
  ('executionAgent', 'Execution Agent'),
  ('validationAgent', 'Validation Agent'),
  ('devopsHelperAgent', 'DevOps Helper')
) AS n("id", "name")
WHERE t."payment_method" = 'usage' AND t."description" LIKE n."id" || ' · %';
