ALTER TABLE "ask_post" ADD COLUMN "render_set" varchar(400) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "ask_reply" ADD COLUMN "render_set" varchar(400) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module_install" ADD COLUMN "enabled" smallint DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "module_install" ADD COLUMN "sha256" varchar(64) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module_install" ADD COLUMN "previous_version" varchar(20) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module_install" ADD COLUMN "reason" varchar(255) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "module_install" ADD COLUMN "update_time" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "md_page" ADD COLUMN "render_set" varchar(400) DEFAULT '' NOT NULL;