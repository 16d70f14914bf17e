CREATE TABLE "admin_log" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer DEFAULT 0 NOT NULL,
	"username" varchar(50) DEFAULT '' NOT NULL,
	"action" varchar(60) NOT NULL,
	"target" varchar(200) DEFAULT '' NOT NULL,
	"before" text DEFAULT '' NOT NULL,
	"after" text DEFAULT '' NOT NULL,
	"ip" varchar(50) DEFAULT '' NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "admin_token" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" varchar(20) NOT NULL,
	"user_id" integer DEFAULT 0 NOT NULL,
	"token_hash" varchar(64) NOT NULL,
	"create_time" bigint NOT NULL,
	"expire_time" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "admin_token_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "site_daily" (
	"day" varchar(10) NOT NULL,
	"name" varchar(30) NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "site_daily_day_name_pk" PRIMARY KEY("day","name")
);
--> statement-breakpoint
CREATE INDEX "admin_log_time_idx" ON "admin_log" USING btree ("create_time");--> statement-breakpoint
CREATE INDEX "admin_log_action_idx" ON "admin_log" USING btree ("action","create_time");