CREATE TABLE "attachment" (
	"id" serial PRIMARY KEY NOT NULL,
	"topic" varchar(20) DEFAULT 'default' NOT NULL,
	"admin_id" integer DEFAULT 0 NOT NULL,
	"user_id" integer DEFAULT 0 NOT NULL,
	"url" varchar(255) NOT NULL,
	"width" integer DEFAULT 0 NOT NULL,
	"height" integer DEFAULT 0 NOT NULL,
	"name" varchar(120) DEFAULT '' NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"mimetype" varchar(100) DEFAULT '' NOT NULL,
	"quote" integer DEFAULT 1 NOT NULL,
	"storage" varchar(50) DEFAULT 'local' NOT NULL,
	"sha1" varchar(40) NOT NULL,
	"create_time" bigint NOT NULL,
	"last_upload_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "captcha" (
	"key" varchar(64) PRIMARY KEY NOT NULL,
	"code" varchar(128) DEFAULT '' NOT NULL,
	"captcha" text DEFAULT '' NOT NULL,
	"attempts" smallint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	"expire_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "token" (
	"token" varchar(64) PRIMARY KEY NOT NULL,
	"type" varchar(20) NOT NULL,
	"user_id" integer NOT NULL,
	"family" varchar(32) DEFAULT '' NOT NULL,
	"used_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	"expire_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user" (
	"id" serial PRIMARY KEY NOT NULL,
	"group_id" integer DEFAULT 1 NOT NULL,
	"username" varchar(32) NOT NULL,
	"nickname" varchar(50) DEFAULT '' NOT NULL,
	"email" varchar(100) DEFAULT '' NOT NULL,
	"mobile" varchar(11) DEFAULT '' NOT NULL,
	"avatar" varchar(255) DEFAULT '' NOT NULL,
	"gender" smallint DEFAULT 0 NOT NULL,
	"birthday" varchar(10),
	"money" bigint DEFAULT 0 NOT NULL,
	"score" integer DEFAULT 0 NOT NULL,
	"last_login_time" bigint DEFAULT 0 NOT NULL,
	"last_login_ip" varchar(50) DEFAULT '' NOT NULL,
	"login_failure" integer DEFAULT 0 NOT NULL,
	"join_ip" varchar(50) DEFAULT '' NOT NULL,
	"join_time" bigint DEFAULT 0 NOT NULL,
	"motto" varchar(255) DEFAULT '' NOT NULL,
	"password" varchar(255) NOT NULL,
	"status" varchar(10) DEFAULT 'enable' NOT NULL,
	"show_open_source_star_time" bigint DEFAULT 0 NOT NULL,
	"is_user_open_source_star" smallint DEFAULT 0 NOT NULL,
	"update_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "user_status_chk" CHECK ("user"."status" in ('enable','disable')),
	CONSTRAINT "user_gender_chk" CHECK ("user"."gender" in (0,1,2))
);
--> statement-breakpoint
CREATE TABLE "user_money_log" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"money" bigint NOT NULL,
	"before" bigint NOT NULL,
	"after" bigint NOT NULL,
	"memo" varchar(255) NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_score_log" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"score" integer NOT NULL,
	"before" integer NOT NULL,
	"after" integer NOT NULL,
	"memo" varchar(255) NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "attachment_sha1_idx" ON "attachment" USING btree ("sha1","topic","storage");--> statement-breakpoint
CREATE INDEX "captcha_expire_idx" ON "captcha" USING btree ("expire_time");--> statement-breakpoint
CREATE INDEX "token_user_idx" ON "token" USING btree ("user_id","type");--> statement-breakpoint
CREATE INDEX "token_family_idx" ON "token" USING btree ("family");--> statement-breakpoint
CREATE UNIQUE INDEX "user_username_uq" ON "user" USING btree (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX "user_email_uq" ON "user" USING btree (lower("email")) WHERE "user"."email" <> '';--> statement-breakpoint
CREATE UNIQUE INDEX "user_mobile_uq" ON "user" USING btree ("mobile") WHERE "user"."mobile" <> '';--> statement-breakpoint
CREATE INDEX "user_money_log_user_idx" ON "user_money_log" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "user_score_log_user_idx" ON "user_score_log" USING btree ("user_id","id");