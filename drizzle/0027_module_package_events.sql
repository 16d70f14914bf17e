CREATE TABLE "module_package" (
	"sha256" varchar(64) PRIMARY KEY NOT NULL,
	"uid" varchar(40) NOT NULL,
	"version" varchar(20) NOT NULL,
	"data" text NOT NULL,
	"size" integer NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "module_event" (
	"id" serial PRIMARY KEY NOT NULL,
	"module_uid" varchar(64) NOT NULL,
	"event" varchar(20) NOT NULL,
	"payload" jsonb NOT NULL,
	"attempts" smallint DEFAULT 0 NOT NULL,
	"next_time" bigint NOT NULL,
	"claimed_until" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "module_package_uid_idx" ON "module_package" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "module_event_next_idx" ON "module_event" USING btree ("next_time");