ALTER TABLE "user_group" ADD COLUMN "name_en" varchar(50) DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE "user_group" SET "name_en" = 'Members' WHERE "id" = 1 AND "name" = '默认分组' AND "name_en" = '';--> statement-breakpoint
UPDATE "user_group" SET "name_en" = 'Administrators' WHERE "id" = 2 AND "name" = '管理员' AND "name_en" = '';
