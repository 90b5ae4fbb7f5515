CREATE TABLE "registry_blob_links" (
	"version_id" uuid NOT NULL,
	"digest" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "registry_blob_links_version_id_digest_pk" PRIMARY KEY("version_id","digest")
);
--> statement-breakpoint
CREATE TABLE "registry_blobs" (
	"digest" text PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registry_manifests" (
	"version_id" uuid NOT NULL,
	"digest" text NOT NULL,
	"media_type" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "registry_manifests_version_id_digest_pk" PRIMARY KEY("version_id","digest")
);
--> statement-breakpoint
CREATE TABLE "registry_tags" (
	"version_id" uuid NOT NULL,
	"tag" text NOT NULL,
	"digest" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "registry_tags_version_id_tag_pk" PRIMARY KEY("version_id","tag")
);
--> statement-breakpoint
CREATE TABLE "registry_uploads" (
	"id" uuid PRIMARY KEY NOT NULL,
	"version_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "strategy_versions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"strategy_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"label" text,
	"description" text,
	"metadata" jsonb,
	"image_status" text DEFAULT 'awaiting_push' NOT NULL,
	"image_digest" text,
	"image_media_type" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"evicted_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "registry_blob_links" ADD CONSTRAINT "registry_blob_links_version_id_strategy_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."strategy_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registry_blob_links" ADD CONSTRAINT "registry_blob_links_digest_registry_blobs_digest_fk" FOREIGN KEY ("digest") REFERENCES "public"."registry_blobs"("digest") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registry_manifests" ADD CONSTRAINT "registry_manifests_version_id_strategy_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."strategy_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registry_tags" ADD CONSTRAINT "registry_tags_version_id_strategy_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."strategy_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registry_uploads" ADD CONSTRAINT "registry_uploads_version_id_strategy_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."strategy_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "strategy_versions" ADD CONSTRAINT "strategy_versions_strategy_id_strategies_id_fk" FOREIGN KEY ("strategy_id") REFERENCES "public"."strategies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "strategy_versions" ADD CONSTRAINT "strategy_versions_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "registry_blob_links_digest_idx" ON "registry_blob_links" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "registry_uploads_version_idx" ON "registry_uploads" USING btree ("version_id");--> statement-breakpoint
CREATE INDEX "strategy_versions_page_idx" ON "strategy_versions" USING btree ("strategy_id","created_at","id");