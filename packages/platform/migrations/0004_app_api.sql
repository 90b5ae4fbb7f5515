ALTER TABLE "scenarios" ADD COLUMN "batch_id" uuid;--> statement-breakpoint
ALTER TABLE "scenarios" ADD COLUMN "progress_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "scenarios_owner_page_idx" ON "scenarios" USING btree ("owner_id","created_at","id");--> statement-breakpoint
CREATE INDEX "scenarios_batch_idx" ON "scenarios" USING btree ("batch_id") WHERE batch_id IS NOT NULL;