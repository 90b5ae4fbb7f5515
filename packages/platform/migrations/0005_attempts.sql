ALTER TABLE "scenarios" ADD COLUMN "attempt" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "scenarios" ADD COLUMN "platform_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "scenarios" ADD COLUMN "attempts" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
UPDATE "scenarios" SET "attempt" = 1 WHERE "started_at" IS NOT NULL;