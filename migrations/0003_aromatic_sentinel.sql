CREATE TABLE "planning_checkpoint_writes" (
	"thread_id" text NOT NULL,
	"checkpoint_ns" text DEFAULT '' NOT NULL,
	"checkpoint_id" text NOT NULL,
	"task_id" text NOT NULL,
	"idx" integer NOT NULL,
	"channel" text NOT NULL,
	"type" text NOT NULL,
	"value" text NOT NULL,
	"task_path" text DEFAULT '' NOT NULL,
	CONSTRAINT "planning_checkpoint_writes_thread_id_checkpoint_ns_checkpoint_id_task_id_idx_pk" PRIMARY KEY("thread_id","checkpoint_ns","checkpoint_id","task_id","idx")
);
--> statement-breakpoint
CREATE TABLE "planning_checkpoints" (
	"thread_id" text NOT NULL,
	"checkpoint_ns" text DEFAULT '' NOT NULL,
	"checkpoint_id" text NOT NULL,
	"parent_checkpoint_id" text,
	"type" text NOT NULL,
	"checkpoint" text NOT NULL,
	"metadata_type" text NOT NULL,
	"metadata" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "planning_checkpoints_thread_id_checkpoint_ns_checkpoint_id_pk" PRIMARY KEY("thread_id","checkpoint_ns","checkpoint_id")
);
--> statement-breakpoint
CREATE TABLE "planning_documents" (
	"project_id" integer NOT NULL,
	"kind" text NOT NULL,
	"content" text NOT NULL,
	"ready" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "planning_documents_project_id_kind_pk" PRIMARY KEY("project_id","kind")
);
--> statement-breakpoint
CREATE TABLE "planning_secrets" (
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"required" boolean NOT NULL,
	"secret_type" text NOT NULL,
	"ciphertext" text,
	"iv" text,
	"declared" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "planning_secrets_project_id_name_pk" PRIMARY KEY("project_id","name")
);
--> statement-breakpoint
CREATE TABLE "planning_threads" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"agent" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "planning_checkpoint_writes" ADD CONSTRAINT "planning_checkpoint_writes_thread_id_planning_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."planning_threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "planning_checkpoints" ADD CONSTRAINT "planning_checkpoints_thread_id_planning_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."planning_threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "planning_documents" ADD CONSTRAINT "planning_documents_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "planning_secrets" ADD CONSTRAINT "planning_secrets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "planning_threads" ADD CONSTRAINT "planning_threads_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "planning_threads_project_agent_idx" ON "planning_threads" USING btree ("project_id","agent","updated_at");