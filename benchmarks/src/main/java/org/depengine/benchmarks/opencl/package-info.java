/** The OpenCL form of the copy/compute overlap workload. */
package org.depengine.benchmarks.opencl;
