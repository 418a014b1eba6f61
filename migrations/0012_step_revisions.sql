ALTER TABLE "execution_plans" ADD COLUMN "revision" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "execution_plans" ADD COLUMN "removed_steps" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "execution_steps" ADD COLUMN "change" text;--> statement-breakpoint
ALTER TABLE "execution_steps" ADD COLUMN "previous_command" text;--> statement-breakpoint
ALTER TABLE "execution_steps" ADD COLUMN "proposal" jsonb;--> statement-breakpoint
ALTER TABLE "validation_plans" ADD COLUMN "revision" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "validation_plans" ADD COLUMN "removed_steps" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "validation_steps" ADD COLUMN "change" text;--> statement-breakpoint
ALTER TABLE "validation_steps" ADD COLUMN "previous_command" text;--> statement-breakpoint
ALTER TABLE "validation_steps" ADD COLUMN "proposal" jsonb;