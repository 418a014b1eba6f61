CREATE TABLE "sandboxes" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"provisioning" text DEFAULT 'CREATING' NOT NULL,
	"error" text,
	"last_sync_time" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandboxes" ADD CONSTRAINT "sandboxes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;