package main

import (
	"github.com/spf13/cobra"
)

func newProfilesCmd() *cobra.Command {
	var dep deploymentFlags
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List the GPU, model and traffic profiles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, err := dep.catalog()
			if err != nil {
				return err
			}
			return cat.WriteTable(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&dep.profilesPath, "profiles", "", "extra profiles: a YAML file or a directory of them")
	return cmd
}
