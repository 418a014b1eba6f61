CREATE TABLE "project_notifications" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"email" text,
	"webhook_sealed" jsonb,
	"webhook_origin" text,
	"last_email" jsonb,
	"last_webhook" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "project_notifications" ADD CONSTRAINT "project_notifications_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;