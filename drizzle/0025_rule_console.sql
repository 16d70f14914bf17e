ALTER TABLE "user_rule" ADD COLUMN "title_en" varchar(50) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "user_rule" ADD COLUMN "redirect" varchar(255) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "user_rule" ADD COLUMN "system" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Every rule that existed before the console could create rules was seeded by Atrium: a system rule.
UPDATE "user_rule" SET "system" = 1;