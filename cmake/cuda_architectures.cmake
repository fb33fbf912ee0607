# The CUDA architectures of a build that does not set CMAKE_CUDA_ARCHITECTURES
# (docs/gpu.md#which-gpus): sm_90 machine code for H100/H200 and compute_90 PTX, which the
# driver compiles for later GPUs, plus machine code for every other GPU of the machine
# that configures — so that scripts/setup.sh on an A100 or an RTX 4090 workstation builds
# an ermak that runs there. nvidia-smi lists the GPUs, `nvcc --list-gpu-code` what this
# CUDA can build. Needs CMAKE_CUDA_COMPILER (check_language(CUDA)).
function(ermak_default_cuda_architectures out)
  set(archs "90-real;90-virtual")
  find_program(ERMAK_NVIDIA_SMI nvidia-smi)
  if(ERMAK_NVIDIA_SMI)
    execute_process(COMMAND "${ERMAK_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE capabilities RESULT_VARIABLE status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-code OUTPUT_VARIABLE buildable ERROR_QUIET)
    if(status EQUAL 0)
      string(REPLACE "\n" ";" capabilities "${capabilities}")
      foreach(capability IN LISTS capabilities)
        string(STRIP "${capability}" capability)
        string(REPLACE "." "" arch "${capability}")
        if(NOT arch MATCHES "^[0-9]+$" OR arch STREQUAL "90")
          continue()
        endif()
        if(buildable MATCHES "sm_${arch}([^0-9]|$)")
          list(APPEND archs "${arch}-real")
          message(STATUS "ermak: a GPU of compute capability ${capability} here: sm_${arch} machine code too")
        elseif(arch GREATER 90)
          message(STATUS "ermak: a GPU of compute capability ${capability} here, which this nvcc cannot build "
                         "for: the driver compiles the compute_90 PTX for it")
        else()
          message(WARNING "ermak: a GPU of compute capability ${capability} here, for which this nvcc builds no "
                          "code: the CUDA backend will not run on it (docs/gpu.md#which-gpus)")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()
