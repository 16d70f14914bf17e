ALTER TABLE "md_book" ADD COLUMN "title_en" varchar(120) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "md_book" ADD COLUMN "archive_time" bigint DEFAULT 0 NOT NULL;