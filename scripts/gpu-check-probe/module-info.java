/**
 * The GPU check's probe (see {@code scripts/gpu-check}): run on the module path, it proves that the
 * {@code cuda} provider resolves as a named module with JCuda's natives, and says whether CUDA is here.
 */
module org.depengine.gpucheck {
    requires org.depengine.api;
}
