CREATE TABLE "ask_category" (
	"id" serial PRIMARY KEY NOT NULL,
	"slug" varchar(30) NOT NULL,
	"type" varchar(12) DEFAULT 'discussion' NOT NULL,
	"title" jsonb NOT NULL,
	"description" jsonb NOT NULL,
	"weigh" integer DEFAULT 0 NOT NULL,
	"post_count" integer DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "ask_category_slug_unique" UNIQUE("slug"),
	CONSTRAINT "ask_category_type_chk" CHECK ("ask_category"."type" in ('question','discussion','share','announcement'))
);
--> statement-breakpoint
CREATE TABLE "ask_collect" (
	"user_id" integer NOT NULL,
	"post_id" integer NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "ask_collect_user_id_post_id_pk" PRIMARY KEY("user_id","post_id")
);
--> statement-breakpoint
CREATE TABLE "ask_post" (
	"id" serial PRIMARY KEY NOT NULL,
	"category_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"title" varchar(150) NOT NULL,
	"body" text NOT NULL,
	"html" text NOT NULL,
	"excerpt" varchar(300) DEFAULT '' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"status" varchar(10) DEFAULT 'published' NOT NULL,
	"pinned" smallint DEFAULT 0 NOT NULL,
	"featured" smallint DEFAULT 0 NOT NULL,
	"views" integer DEFAULT 0 NOT NULL,
	"reply_count" integer DEFAULT 0 NOT NULL,
	"up_count" integer DEFAULT 0 NOT NULL,
	"down_count" integer DEFAULT 0 NOT NULL,
	"collect_count" integer DEFAULT 0 NOT NULL,
	"accepted_reply_id" integer,
	"hot" double precision DEFAULT 0 NOT NULL,
	"last_reply_user_id" integer,
	"last_activity_time" bigint NOT NULL,
	"nonce" varchar(40),
	"search_vector" "tsvector" NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "ask_post_status_chk" CHECK ("ask_post"."status" in ('published','hidden','deleted'))
);
--> statement-breakpoint
CREATE TABLE "ask_post_tag" (
	"post_id" integer NOT NULL,
	"tag_id" integer NOT NULL,
	CONSTRAINT "ask_post_tag_post_id_tag_id_pk" PRIMARY KEY("post_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "ask_reply" (
	"id" serial PRIMARY KEY NOT NULL,
	"post_id" integer NOT NULL,
	"parent_id" integer DEFAULT 0 NOT NULL,
	"user_id" integer NOT NULL,
	"body" text NOT NULL,
	"html" text NOT NULL,
	"status" varchar(10) DEFAULT 'published' NOT NULL,
	"up_count" integer DEFAULT 0 NOT NULL,
	"down_count" integer DEFAULT 0 NOT NULL,
	"comment_count" integer DEFAULT 0 NOT NULL,
	"nonce" varchar(40),
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "ask_reply_status_chk" CHECK ("ask_reply"."status" in ('published','hidden','deleted'))
);
--> statement-breakpoint
CREATE TABLE "ask_report" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"target_type" varchar(5) NOT NULL,
	"target_id" integer NOT NULL,
	"post_id" integer NOT NULL,
	"reason" varchar(500) NOT NULL,
	"status" varchar(10) DEFAULT 'open' NOT NULL,
	"handled_by" integer,
	"handle_time" bigint,
	"create_time" bigint NOT NULL,
	CONSTRAINT "ask_report_status_chk" CHECK ("ask_report"."status" in ('open','resolved','dismissed'))
);
--> statement-breakpoint
CREATE TABLE "ask_tag" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(30) NOT NULL,
	"post_count" integer DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ask_vote" (
	"user_id" integer NOT NULL,
	"target_type" varchar(5) NOT NULL,
	"target_id" integer NOT NULL,
	"value" smallint NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "ask_vote_user_id_target_type_target_id_pk" PRIMARY KEY("user_id","target_type","target_id"),
	CONSTRAINT "ask_vote_chk" CHECK ("ask_vote"."value" in (1,-1) and "ask_vote"."target_type" in ('post','reply'))
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"type" varchar(30) NOT NULL,
	"sender_id" integer DEFAULT 0 NOT NULL,
	"recipient_id" integer NOT NULL,
	"title" varchar(200) NOT NULL,
	"summary" varchar(300) DEFAULT '' NOT NULL,
	"link" varchar(255) DEFAULT '' NOT NULL,
	"read_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "module_install" (
	"uid" varchar(40) PRIMARY KEY NOT NULL,
	"version" varchar(20) NOT NULL,
	"installed_by" integer DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "ask_collect_post_idx" ON "ask_collect" USING btree ("post_id","create_time");--> statement-breakpoint
CREATE INDEX "ask_post_latest_idx" ON "ask_post" USING btree ("status","pinned","last_activity_time");--> statement-breakpoint
CREATE INDEX "ask_post_hot_idx" ON "ask_post" USING btree ("status","hot");--> statement-breakpoint
CREATE INDEX "ask_post_category_idx" ON "ask_post" USING btree ("category_id","status","last_activity_time");--> statement-breakpoint
CREATE INDEX "ask_post_user_idx" ON "ask_post" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "ask_post_created_idx" ON "ask_post" USING btree ("create_time");--> statement-breakpoint
CREATE INDEX "ask_post_featured_idx" ON "ask_post" USING btree ("last_activity_time") WHERE "ask_post"."featured" = 1 and "ask_post"."status" = 'published';--> statement-breakpoint
CREATE INDEX "ask_post_unsolved_idx" ON "ask_post" USING btree ("last_activity_time") WHERE "ask_post"."accepted_reply_id" is null and "ask_post"."status" = 'published';--> statement-breakpoint
CREATE UNIQUE INDEX "ask_post_nonce_uq" ON "ask_post" USING btree ("user_id","nonce");--> statement-breakpoint
CREATE INDEX "ask_post_search_idx" ON "ask_post" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "ask_post_tag_tag_idx" ON "ask_post_tag" USING btree ("tag_id","post_id");--> statement-breakpoint
CREATE INDEX "ask_reply_post_idx" ON "ask_reply" USING btree ("post_id","parent_id","id");--> statement-breakpoint
CREATE INDEX "ask_reply_user_idx" ON "ask_reply" USING btree ("user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ask_reply_nonce_uq" ON "ask_reply" USING btree ("user_id","nonce");--> statement-breakpoint
CREATE UNIQUE INDEX "ask_report_once_uq" ON "ask_report" USING btree ("user_id","target_type","target_id") WHERE "ask_report"."status" = 'open';--> statement-breakpoint
CREATE INDEX "ask_report_status_idx" ON "ask_report" USING btree ("status","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ask_tag_name_uq" ON "ask_tag" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "ask_tag_count_idx" ON "ask_tag" USING btree ("post_count");--> statement-breakpoint
CREATE INDEX "messages_recipient_idx" ON "messages" USING btree ("recipient_id","id");--> statement-breakpoint
CREATE INDEX "messages_unread_idx" ON "messages" USING btree ("recipient_id") WHERE "messages"."read_time" = 0;