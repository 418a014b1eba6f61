CREATE TABLE "drift_checks" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	"release_number" integer,
	"checks" jsonb NOT NULL,
	"differences" jsonb NOT NULL,
	"error" text
);
--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "note" text;--> statement-breakpoint
ALTER TABLE "drift_checks" ADD CONSTRAINT "drift_checks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;