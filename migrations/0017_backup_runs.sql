CREATE TABLE "backup_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"kind" text NOT NULL,
	"ok" boolean NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"seconds" integer NOT NULL,
	"destination" text NOT NULL,
	"bytes" bigint,
	"added" bigint,
	"snapshot" text,
	"failure" text,
	"checks" jsonb NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "backup_runs" ADD CONSTRAINT "backup_runs_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "backup_runs_project_kind_started" ON "backup_runs" USING btree ("project_id","kind","started_at");--> statement-breakpoint
CREATE INDEX "backup_runs_project_recorded" ON "backup_runs" USING btree ("project_id","recorded_at");