ALTER TABLE "module" ADD COLUMN "name_en" varchar(60) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module" ADD COLUMN "summary_en" varchar(150) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module" ADD COLUMN "description_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module" ADD COLUMN "description_en_html" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module_version" ADD COLUMN "changelog_en" text DEFAULT '' NOT NULL;