/**
 * Imported for its effect: the test file that imports it loads each model
 * once and shares it between its tests (see `shareLoadedModels`), instead of
 * starting an inference worker, about half a second of CPU, at every store
 * that embeds.
 * @module
 */
import { shareLoadedModels } from "../../src/embed/shared_models.ts";

shareLoadedModels();
