CREATE TABLE "message_event" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"kind" varchar(10) NOT NULL,
	"data" text NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "message_pref" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"mail_kinds" varchar(100) NOT NULL,
	"locale" varchar(5) DEFAULT 'zh-cn' NOT NULL,
	"update_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_block" (
	"user_id" integer NOT NULL,
	"blocked_id" integer NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "user_block_user_id_blocked_id_pk" PRIMARY KEY("user_id","blocked_id")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "content" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "group_count" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "mail_time" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "message_event_user_idx" ON "message_event" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "message_event_time_idx" ON "message_event" USING btree ("create_time");--> statement-breakpoint
CREATE INDEX "user_block_blocked_idx" ON "user_block" USING btree ("blocked_id");--> statement-breakpoint
CREATE INDEX "messages_dialog_idx" ON "messages" USING btree ("sender_id","recipient_id","id") WHERE "messages"."type" = 'private';--> statement-breakpoint
CREATE INDEX "messages_mail_idx" ON "messages" USING btree ("create_time") WHERE "messages"."read_time" = 0 and "messages"."mail_time" = 0;