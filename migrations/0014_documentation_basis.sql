ALTER TABLE "project_documentation" ADD COLUMN "written_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "project_documentation" ADD COLUMN "validation_basis" jsonb;