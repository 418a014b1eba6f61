ALTER TABLE "execution_steps" ADD COLUMN "heartbeat_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "validation_steps" ADD COLUMN "heartbeat_at" timestamp with time zone;