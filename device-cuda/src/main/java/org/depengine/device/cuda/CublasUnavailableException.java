package org.depengine.device.cuda;

import org.depengine.api.EngineException;

/**
 * cuBLAS cannot be loaded in this process (its library, or one it links, is missing): thrown by
 * {@link CudaStream#cublas()}, and taken by {@link CudaPrimitives} as the cue to run sgemm and axpy on
 * the module's own kernels. A cuBLAS that loads but fails is an ordinary {@link EngineException}.
 */
final class CublasUnavailableException extends EngineException {
    private static final long serialVersionUID = 1L;

    CublasUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
