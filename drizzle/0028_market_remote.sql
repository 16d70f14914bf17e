CREATE TABLE "market_key" (
	"id" smallint PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"private_key" text NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_api_token" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" varchar(60) NOT NULL,
	"token_hash" varchar(64) NOT NULL,
	"create_time" bigint NOT NULL,
	"last_use_time" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "module_remote" (
	"id" serial PRIMARY KEY NOT NULL,
	"url" varchar(255) NOT NULL,
	"token" varchar(128) NOT NULL,
	"public_key" text NOT NULL,
	"fingerprint" varchar(64) NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "module_remote_source" (
	"uid" varchar(40) PRIMARY KEY NOT NULL,
	"remote_id" integer NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "member_api_token_hash_idx" ON "member_api_token" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "member_api_token_user_idx" ON "member_api_token" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "module_remote_url_idx" ON "module_remote" USING btree ("url");