CREATE TABLE "notice" (
	"id" serial PRIMARY KEY NOT NULL,
	"title" varchar(120) NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notice_read" (
	"user_id" integer NOT NULL,
	"notice_id" integer NOT NULL,
	"read_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "notice_status_idx" ON "notice" USING btree ("status","id");--> statement-breakpoint
CREATE UNIQUE INDEX "notice_read_uq" ON "notice_read" USING btree ("user_id","notice_id");