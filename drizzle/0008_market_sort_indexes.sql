DROP INDEX "module_newest_idx";--> statement-breakpoint
DROP INDEX "module_popular_idx";--> statement-breakpoint
DROP INDEX "module_rating_idx";--> statement-breakpoint
DROP INDEX "module_price_idx";--> statement-breakpoint
DROP INDEX "module_category_idx";--> statement-breakpoint
CREATE INDEX "module_newest_idx" ON "module" USING btree ("status","publish_time","id");--> statement-breakpoint
CREATE INDEX "module_popular_idx" ON "module" USING btree ("status","downloads","id");--> statement-breakpoint
CREATE INDEX "module_rating_idx" ON "module" USING btree ("status","rating","rating_count","id");--> statement-breakpoint
CREATE INDEX "module_price_idx" ON "module" USING btree ("status","price","score_price","id");--> statement-breakpoint
CREATE INDEX "module_category_idx" ON "module" USING btree ("status","category","publish_time","id");