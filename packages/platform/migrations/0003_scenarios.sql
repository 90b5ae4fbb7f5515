CREATE TABLE "scenario_logs" (
	"scenario_id" uuid NOT NULL,
	"stream" text NOT NULL,
	"content" "bytea" NOT NULL,
	"total_bytes" bigint NOT NULL,
	CONSTRAINT "scenario_logs_scenario_id_stream_pk" PRIMARY KEY("scenario_id","stream")
);
--> statement-breakpoint
CREATE TABLE "scenario_results" (
	"scenario_id" uuid PRIMARY KEY NOT NULL,
	"metadata" "bytea" NOT NULL,
	"timeseries" "bytea" NOT NULL,
	"trades" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scenarios" (
	"id" uuid PRIMARY KEY NOT NULL,
	"owner_id" uuid NOT NULL,
	"strategy_id" uuid NOT NULL,
	"version_id" uuid NOT NULL,
	"config_id" uuid,
	"label" text,
	"settings" jsonb NOT NULL,
	"instruments" text[] NOT NULL,
	"state" text NOT NULL,
	"error_type" text,
	"error_message" text,
	"worker_id" text,
	"lease_expires_at" timestamp (3) with time zone,
	"manifest" jsonb,
	"metrics" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"started_at" timestamp (3) with time zone,
	"running_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "scenario_logs" ADD CONSTRAINT "scenario_logs_scenario_id_scenarios_id_fk" FOREIGN KEY ("scenario_id") REFERENCES "public"."scenarios"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scenario_results" ADD CONSTRAINT "scenario_results_scenario_id_scenarios_id_fk" FOREIGN KEY ("scenario_id") REFERENCES "public"."scenarios"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scenarios" ADD CONSTRAINT "scenarios_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scenarios" ADD CONSTRAINT "scenarios_strategy_id_strategies_id_fk" FOREIGN KEY ("strategy_id") REFERENCES "public"."strategies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scenarios" ADD CONSTRAINT "scenarios_version_id_strategy_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."strategy_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scenarios_strategy_page_idx" ON "scenarios" USING btree ("strategy_id","created_at","id");--> statement-breakpoint
CREATE INDEX "scenarios_owner_state_idx" ON "scenarios" USING btree ("owner_id","state");--> statement-breakpoint
CREATE INDEX "scenarios_queue_idx" ON "scenarios" USING btree ("created_at","id") WHERE state = 'QUEUED';--> statement-breakpoint
CREATE INDEX "scenarios_lease_idx" ON "scenarios" USING btree ("lease_expires_at") WHERE state IN ('PENDING', 'RUNNING');