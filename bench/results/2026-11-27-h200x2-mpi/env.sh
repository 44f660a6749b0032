M=$PWD/.mpi/usr
export OPAL_PREFIX=$M PMIX_INSTALL_PREFIX=$M/lib/x86_64-linux-gnu/pmix2 PATH=$M/bin:$PATH LD_LIBRARY_PATH=$M/lib/x86_64-linux-gnu:$M/lib/x86_64-linux-gnu/openmpi/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_mtl=^ofi,psm,psm2 OMPI_MCA_osc=^ucx OMPI_MCA_btl_vader_single_copy_mechanism=none
export PMIX_MCA_pcompress_base_silence_warning=1
