CREATE TABLE "user_login_log" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"method" varchar(20) DEFAULT 'password' NOT NULL,
	"result" varchar(20) NOT NULL,
	"ip" varchar(50) DEFAULT '' NOT NULL,
	"user_agent" varchar(255) DEFAULT '' NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "user_login_log_result_chk" CHECK ("user_login_log"."result" in ('ok','wrong_password','locked','disabled'))
);
--> statement-breakpoint
CREATE INDEX "user_login_log_user_idx" ON "user_login_log" USING btree ("user_id","id");