CREATE TABLE "project_documentation" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"documentation" text DEFAULT '' NOT NULL,
	"quickstart" text DEFAULT '' NOT NULL,
	"key_value_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "validation_plans" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "validation_steps" (
	"plan_id" integer NOT NULL,
	"step_number" integer NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"prompt" text DEFAULT '' NOT NULL,
	"command" text,
	"status" text DEFAULT 'waiting_approval' NOT NULL,
	"output" text,
	"error_message" text,
	"dangerous_reason" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "validation_steps_plan_id_step_number_pk" PRIMARY KEY("plan_id","step_number")
);
--> statement-breakpoint
ALTER TABLE "project_documentation" ADD CONSTRAINT "project_documentation_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "validation_plans" ADD CONSTRAINT "validation_plans_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "validation_steps" ADD CONSTRAINT "validation_steps_plan_id_validation_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."validation_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "validation_plans_project_idx" ON "validation_plans" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "validation_steps_status_idx" ON "validation_steps" USING btree ("status");