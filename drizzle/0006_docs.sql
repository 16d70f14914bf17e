CREATE TABLE "md_book" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"title" varchar(120) NOT NULL,
	"description" varchar(500) DEFAULT '' NOT NULL,
	"cover" varchar(255) DEFAULT '' NOT NULL,
	"lang" varchar(10) DEFAULT 'zh-cn' NOT NULL,
	"visibility" varchar(10) DEFAULT 'public' NOT NULL,
	"owner_id" integer DEFAULT 0 NOT NULL,
	"weigh" integer DEFAULT 0 NOT NULL,
	"page_count" integer DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "md_book_visibility_chk" CHECK ("md_book"."visibility" in ('public','members'))
);
--> statement-breakpoint
CREATE TABLE "md_book_editor" (
	"book_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "md_book_editor_book_id_user_id_pk" PRIMARY KEY("book_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "md_page" (
	"id" serial PRIMARY KEY NOT NULL,
	"book_id" integer NOT NULL,
	"name" varchar(100) NOT NULL,
	"title" varchar(150) NOT NULL,
	"parent_id" integer DEFAULT 0 NOT NULL,
	"weigh" integer DEFAULT 0 NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"html" text DEFAULT '' NOT NULL,
	"headings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"revision_id" integer DEFAULT 0 NOT NULL,
	"updated_by" integer DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "md_redirect" (
	"book_id" integer NOT NULL,
	"name" varchar(100) NOT NULL,
	"page_id" integer NOT NULL,
	CONSTRAINT "md_redirect_book_id_name_pk" PRIMARY KEY("book_id","name")
);
--> statement-breakpoint
CREATE TABLE "md_revision" (
	"id" serial PRIMARY KEY NOT NULL,
	"page_id" integer NOT NULL,
	"book_id" integer NOT NULL,
	"title" varchar(150) NOT NULL,
	"content" text NOT NULL,
	"message" varchar(200) DEFAULT '' NOT NULL,
	"author_id" integer DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "md_section" (
	"id" serial PRIMARY KEY NOT NULL,
	"page_id" integer NOT NULL,
	"book_id" integer NOT NULL,
	"anchor" varchar(200) DEFAULT '' NOT NULL,
	"heading" varchar(300) DEFAULT '' NOT NULL,
	"text" text DEFAULT '' NOT NULL,
	"search_vector" "tsvector" NOT NULL
);
--> statement-breakpoint
DROP INDEX "ask_post_created_idx";--> statement-breakpoint
ALTER TABLE "ask_post" ADD COLUMN "title_vector" "tsvector" DEFAULT ''::tsvector NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "md_book_name_uq" ON "md_book" USING btree (lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "md_page_name_uq" ON "md_page" USING btree ("book_id","name");--> statement-breakpoint
CREATE INDEX "md_page_tree_idx" ON "md_page" USING btree ("book_id","parent_id","weigh");--> statement-breakpoint
CREATE INDEX "md_revision_page_idx" ON "md_revision" USING btree ("page_id","id");--> statement-breakpoint
CREATE INDEX "md_section_page_idx" ON "md_section" USING btree ("page_id");--> statement-breakpoint
CREATE INDEX "md_section_search_idx" ON "md_section" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "ask_post_recent_user_idx" ON "ask_post" USING btree ("status","create_time","user_id");