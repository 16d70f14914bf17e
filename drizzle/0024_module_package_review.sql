ALTER TABLE "module_version" ADD COLUMN "sha256" varchar(64) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module_version" ADD COLUMN "reviewed_sha256" varchar(64) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module_version" ADD COLUMN "manifest" jsonb;--> statement-breakpoint
ALTER TABLE "module_version" ADD COLUMN "files" jsonb DEFAULT '[]'::jsonb NOT NULL;