CREATE TABLE "chat_conversation" (
	"id" varchar(64) PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"title" varchar(100) NOT NULL,
	"model" varchar(64) DEFAULT '' NOT NULL,
	"leaf_id" varchar(64) DEFAULT '' NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_message" (
	"seq" serial PRIMARY KEY NOT NULL,
	"id" varchar(64) NOT NULL,
	"conversation_id" varchar(64) NOT NULL,
	"parent_id" varchar(64) DEFAULT '' NOT NULL,
	"role" varchar(10) NOT NULL,
	"text" text NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "chat_message_role_chk" CHECK ("chat_message"."role" in ('user','assistant'))
);
--> statement-breakpoint
CREATE TABLE "chat_model" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(64) NOT NULL,
	"title" varchar(100) NOT NULL,
	"base_url" varchar(255) NOT NULL,
	"api_key" text DEFAULT '' NOT NULL,
	"model_id" varchar(128) NOT NULL,
	"context_window" integer DEFAULT 8192 NOT NULL,
	"price_per_1k" integer DEFAULT 0 NOT NULL,
	"price_per_message" integer DEFAULT 0 NOT NULL,
	"free_daily" integer DEFAULT 0 NOT NULL,
	"free_unit" varchar(10) DEFAULT 'messages' NOT NULL,
	"audience" varchar(10) DEFAULT 'members' NOT NULL,
	"groups" varchar(255) DEFAULT '' NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"weigh" integer DEFAULT 0 NOT NULL,
	"create_time" bigint DEFAULT 0 NOT NULL,
	"update_time" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "chat_model_audience_chk" CHECK ("chat_model"."audience" in ('visitors','members','groups')),
	CONSTRAINT "chat_model_free_unit_chk" CHECK ("chat_model"."free_unit" in ('messages','tokens'))
);
--> statement-breakpoint
CREATE TABLE "chat_reply" (
	"id" varchar(64) PRIMARY KEY NOT NULL,
	"chat_id" varchar(64) NOT NULL,
	"user_id" integer DEFAULT 0 NOT NULL,
	"ip" varchar(50) DEFAULT '' NOT NULL,
	"model" varchar(64) NOT NULL,
	"status" varchar(10) DEFAULT 'streaming' NOT NULL,
	"prompt_tokens" integer DEFAULT 0 NOT NULL,
	"completion_tokens" integer DEFAULT 0 NOT NULL,
	"free" smallint DEFAULT 1 NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	"finish_time" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "chat_reply_status_chk" CHECK ("chat_reply"."status" in ('streaming','done','stopped','failed'))
);
--> statement-breakpoint
CREATE INDEX "chat_conversation_user_idx" ON "chat_conversation" USING btree ("user_id","update_time");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_message_id_uq" ON "chat_message" USING btree ("conversation_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_model_name_uq" ON "chat_model" USING btree ("name");--> statement-breakpoint
CREATE INDEX "chat_reply_chat_idx" ON "chat_reply" USING btree ("chat_id","status");--> statement-breakpoint
CREATE INDEX "chat_reply_user_idx" ON "chat_reply" USING btree ("user_id","create_time");--> statement-breakpoint
CREATE INDEX "chat_reply_ip_idx" ON "chat_reply" USING btree ("ip","create_time");